// ECharts, piece by piece: echarts/core plus the bar, line and pie charts, the canvas renderer and three
// components, so the bundle holds only what the pages draw. Loaded on the first chart (chart.tsx),
// so that pages without charts do not carry it.
import * as echarts from 'echarts/core';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export { echarts };
